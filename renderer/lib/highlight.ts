// Syntax highlighting for diffs: refractor's core, and each language's grammar loaded the first
// time a file in it is shown (so the app does not carry every grammar Prism has).

import type { Syntax } from 'refractor/core';
import type { Language } from './changes';

const GRAMMARS: Record<Language, () => Promise<{ default: Syntax }>> = {
  javascript: () => import('refractor/javascript'),
  jsx: () => import('refractor/jsx'),
  typescript: () => import('refractor/typescript'),
  tsx: () => import('refractor/tsx'),
  json: () => import('refractor/json'),
  css: () => import('refractor/css'),
  markup: () => import('refractor/markup'),
  markdown: () => import('refractor/markdown'),
  python: () => import('refractor/python'),
  go: () => import('refractor/go'),
  rust: () => import('refractor/rust'),
  java: () => import('refractor/java'),
  c: () => import('refractor/c'),
  cpp: () => import('refractor/cpp'),
  ruby: () => import('refractor/ruby'),
  bash: () => import('refractor/bash'),
  yaml: () => import('refractor/yaml'),
  toml: () => import('refractor/toml'),
  sql: () => import('refractor/sql'),
  docker: () => import('refractor/docker'),
  makefile: () => import('refractor/makefile'),
};

/** What react-diff-view's tokenizer calls: refractor's highlight, giving the nodes of its root. */
export interface Highlighter {
  highlight(text: string, language: string): unknown[];
}

/** A highlighter that knows `language`, once its grammar is loaded; null if it cannot be. */
export async function highlighterFor(language: Language): Promise<Highlighter | null> {
  try {
    const { refractor } = await import('refractor/core');
    if (!refractor.registered(language)) refractor.register((await GRAMMARS[language]()).default);
    return { highlight: (text, lang) => refractor.highlight(text, lang).children };
  } catch {
    return null;
  }
}
