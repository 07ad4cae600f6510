// The folder root's Browse button on the desktop: Electron's folder dialog, over
// the main window so it is modal to it. Electron is reached through the small
// part of `dialog` used here, so the desktop tests hand in a fake dialog.
import type { BaseWindow, OpenDialogOptions, OpenDialogReturnValue } from 'electron';

/** The part of Electron's `dialog` the chooser uses. */
export interface FolderDialogLike {
  showOpenDialog(window: BaseWindow, options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
  showOpenDialog(options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
}

/** A `chooseFolder` for the core: the folder picked, or null when the user cancelled. */
export function folderChooser(dialog: FolderDialogLike, parentWindow: () => BaseWindow | null): (defaultPath: string | undefined) => Promise<string | null> {
  return async (defaultPath) => {
    const options: OpenDialogOptions = {
      title: 'Choose the folder for project folders',
      buttonLabel: 'Use this folder',
      properties: ['openDirectory', 'createDirectory', 'promptToCreate'],
      ...(defaultPath ? { defaultPath } : {}),
    };
    const window = parentWindow();
    const answer = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
    return answer.canceled ? null : (answer.filePaths[0] ?? null);
  };
}
