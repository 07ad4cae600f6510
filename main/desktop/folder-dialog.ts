// The desktop's dialogs for the core: the folder root's Browse button (a folder
// dialog) and a document's "Save a copy…" (a save dialog), each over the main
// window so it is modal to it. Electron is reached through the small part of
// `dialog` used here, so the desktop tests hand in a fake dialog.
import type { BaseWindow, OpenDialogOptions, OpenDialogReturnValue, SaveDialogOptions, SaveDialogReturnValue } from 'electron';

/** The part of Electron's `dialog` the chooser uses. */
export interface FolderDialogLike {
  showOpenDialog(window: BaseWindow, options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
  showOpenDialog(options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
}

/** The part of Electron's `dialog` the save chooser uses. */
export interface SaveDialogLike {
  showSaveDialog(window: BaseWindow, options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  showSaveDialog(options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
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

/** A `chooseSaveFile` for the core: where to save a copy of `fileName` (offered in the user's Documents), or null when cancelled. */
export function saveFileChooser(dialog: SaveDialogLike, parentWindow: () => BaseWindow | null, documentsFolder: string): (fileName: string) => Promise<string | null> {
  return async (fileName) => {
    const extension = fileName.includes('.') ? fileName.slice(fileName.lastIndexOf('.') + 1) : '';
    const options: SaveDialogOptions = {
      title: 'Save a copy',
      buttonLabel: 'Save',
      defaultPath: `${documentsFolder.replace(/[\\/]+$/, '')}/${fileName}`,
      ...(extension ? { filters: [{ name: extension.toUpperCase(), extensions: [extension] }] } : {}),
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    };
    const window = parentWindow();
    const answer = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
    return answer.canceled || !answer.filePath ? null : answer.filePath;
  };
}
