/// <reference lib="dom" />
// Exposes the contract to the renderer, and nothing else (client.ts). Its type is the contract's
// type.

import { contextBridge, ipcRenderer } from 'electron';
import { desktopApi } from './client';

contextBridge.exposeInMainWorld('corral', desktopApi(ipcRenderer));
