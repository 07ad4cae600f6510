// The remote token, kept with Electron's safeStorage (the OS keychain/DPAPI/libsecret
// key encrypts it) instead of a plain 0600 file. The desktop hands safeStorage in
// (main/desktop/electron-main.ts), so this stays free of Electron, beside the agent
// backend whose token it keeps, and the logic is tested in plain Node; where the OS offers no encryption (a bare Linux
// session without a keyring) it falls back to the agent's 0600 file and says so.
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateFolder, PRIVATE_FILE_MODE } from '../engine/store/private-files.ts';
import { fileSecretStore, REMOTE_TOKEN_FILE, type SecretStore } from '../sync/agent.ts';

export const SAFE_TOKEN_FILE = 'remote-token.safe';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export function safeStorageTokenStore(safeStorage: SafeStorageLike, replicaFolder: string, warn: (message: string) => void = console.warn): SecretStore {
  const plainFile = fileSecretStore(path.join(replicaFolder, REMOTE_TOKEN_FILE));
  if (!safeStorage.isEncryptionAvailable()) {
    warn('SolarDesk: the system offers no secret storage; the remote token is kept in a file only you can read.');
    return plainFile;
  }
  const file = path.join(replicaFolder, SAFE_TOKEN_FILE);
  return {
    read() {
      try {
        return safeStorage.decryptString(fs.readFileSync(file)) || null;
      } catch {
        return null;
      }
    },
    write(value) {
      makePrivateFolder(replicaFolder);
      fs.writeFileSync(file, safeStorage.encryptString(value), { mode: PRIVATE_FILE_MODE });
      plainFile.clear(); // never both: an old plain copy is removed once the safe one exists
    },
    clear() {
      fs.rmSync(file, { force: true });
      plainFile.clear();
    },
  };
}
