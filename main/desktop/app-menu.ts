// The application menu, as a template (no Electron import), so its commands are
// visible and tested; electron-main.ts builds it with Menu.buildFromTemplate.
export interface MenuActions {
  openDataFolder(): void;
  openProjectFolders(): void;
  reload(): void;
  toggleDevTools(): void;
  quit(): void;
}

type MenuTemplate = Array<{
  label?: string;
  role?: string;
  type?: 'separator';
  accelerator?: string;
  click?: () => void;
  submenu?: MenuTemplate;
}>;

export function buildMenuTemplate(platform: NodeJS.Platform, actions: MenuActions, isPackaged: boolean): MenuTemplate {
  const isMac = platform === 'darwin';
  const template: MenuTemplate = [
    ...(isMac ? [{ label: 'SolarDesk', submenu: [{ role: 'about' }, { type: 'separator' as const }, { role: 'hide' }, { role: 'unhide' }, { type: 'separator' as const }, { role: 'quit' }] }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Project Folders', accelerator: 'CmdOrCtrl+Shift+O', click: actions.openProjectFolders },
        { label: 'Open Data Folder', click: actions.openDataFolder },
        { type: 'separator' },
        isMac ? { role: 'close' } : { label: 'Quit', accelerator: 'Ctrl+Q', click: actions.quit },
      ],
    },
    { label: 'Edit', submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }] },
    {
      label: 'View',
      submenu: [
        { label: 'Reload', accelerator: 'CmdOrCtrl+R', click: actions.reload },
        // Developer tools only in a build from source: a packaged app has no use for them.
        ...(isPackaged ? [] : [{ label: 'Toggle Developer Tools', accelerator: 'CmdOrCtrl+Alt+I', click: actions.toggleDevTools }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { label: 'Window', submenu: [{ role: 'minimize' }, ...(isMac ? [{ role: 'zoom' }, { role: 'front' }] : [{ role: 'close' }])] },
  ];
  return template;
}
