// Prints the plain closing line CI reads ("N passed, N failed, N skipped") after the list.

import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private readonly outcomes = new Map<string, TestResult['status']>();

  onTestEnd(test: TestCase, result: TestResult): void {
    this.outcomes.set(test.id, result.status);
  }

  onEnd(): void {
    const all = [...this.outcomes.values()];
    const passed = all.filter((s) => s === 'passed').length;
    const skipped = all.filter((s) => s === 'skipped').length;
    process.stdout.write(`\n${passed} passed, ${all.length - passed - skipped} failed, ${skipped} skipped\n`);
  }
}
