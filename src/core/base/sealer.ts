// Text sealed with AES-256-GCM under a key derived (HKDF-SHA256) for one purpose: what a gateway
// hands out and must read back unchanged and unread (a replica's mark, a sign-in link's state, a
// user's tokens in a store others can read). Sealed: 12 bytes of IV, the ciphertext, the 16-byte
// tag, base64url.
//
// Every seal is bound to its context (GCM's associated data): where the value is kept and whose it
// is (a store's key, the user, the server). Someone who can write the store but not the key can
// still copy one sealed value under another key, or another user's name; the context makes that
// copy fail to open, as surely as a changed byte does.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** What a sealed value is bound to: its kind, and whatever names where it lives and whose it is. */
export type SealContext = readonly [kind: string, ...parts: string[]];

export class Sealer {
  private readonly key: Buffer;

  /** `secret`: a key shared by those who must open what the others seal; `purpose` keeps uses apart. */
  constructor(secret: Uint8Array, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
  }

  /** A sealer of this process alone (nothing it seals outlives it). */
  static ofThisProcess(purpose: string): Sealer {
    return new Sealer(randomBytes(32), purpose);
  }

  seal(text: string, context: SealContext): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(associatedData(context));
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The text, or undefined for anything not sealed under this key and purpose with this very
   * context (or over `maxChars`).
   */
  open(sealed: string, maxChars: number, context: SealContext): string | undefined {
    if (sealed.length > maxChars) return undefined;
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 12 + 16 + 1) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAAD(associatedData(context));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** Unambiguous: each part's length before it, so that ["ab","c"] and ["a","bc"] differ. */
function associatedData(context: SealContext): Buffer {
  return Buffer.from(context.map((part) => `${part.length}:${part}`).join(''), 'utf8');
}
