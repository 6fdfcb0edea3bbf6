import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { SESSION_COOKIE_MAX_BYTES } from './session-cookie.js';

/** What a sealed value is for: a value sealed for one is refused as the other. */
export type SealPurpose = 'session' | 'oidc-sign-in';

/** The shortest key line `--session-key-file` accepts: 32 characters of `openssl rand -base64 48`. */
export const MIN_SESSION_KEY_LENGTH = 32;

interface SealKey {
  /** A fingerprint of the key (never the key): which line of the file sealed a value. */
  readonly id: string;
  readonly encryption: Uint8Array;
}

/** One key of the file, derived for one use: the key file's text never encrypts anything itself. */
const derive = (material: Buffer, use: string) =>
  Buffer.from(hkdfSync('sha256', material, 'mgpu-console', use, 32));

function sealKeyOf(material: Buffer): SealKey {
  const encryption = derive(material, 'session seal v1');
  const id = createHash('sha256').update(encryption).digest('base64url').slice(0, 12);
  return { id, encryption };
}

/**
 * Seals what a browser keeps between requests — a session (the operator's token inside) and an
 * OIDC sign-in between redirect and callback — as a JWE (`dir`, A256GCM, through `jose`): nobody
 * without the key reads or alters it, so any console holding the same key accepts it, and a
 * restart does not end it. The key comes from `--session-key-file`: one key per line, the first
 * seals, every line unseals (rotation: add a new first line, drop the old one a session-lifetime
 * later). Without a file the key is made per process: sessions end with the process.
 */
export class SessionSeal {
  private readonly keys: readonly SealKey[];
  /** Keys the `--token` cookie's MAC is made with (one per line, the first signs). */
  readonly macKeys: readonly Buffer[];

  private constructor(
    materials: readonly Buffer[],
    /** Whether the key came from a file that other consoles (and the next start) share. */
    readonly shared: boolean,
  ) {
    this.keys = materials.map(sealKeyOf);
    this.macKeys = materials.map((material) => derive(material, 'console token cookie v1'));
  }

  /** A key of this process alone. */
  static ephemeral(): SessionSeal {
    return new SessionSeal([randomBytes(48)], false);
  }

  /**
   * The keys of a key file's text: each non-empty line (trimmed) at least
   * `MIN_SESSION_KEY_LENGTH` characters; throws a one-line reason otherwise.
   */
  static fromText(text: string): SessionSeal {
    const lines = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (lines.length === 0) throw new Error('has no key (e.g. openssl rand -base64 48 > FILE)');
    const short = lines.findIndex((line) => line.length < MIN_SESSION_KEY_LENGTH);
    if (short >= 0)
      throw new Error(
        `line ${short + 1} has ${lines[short]?.length} characters; a key needs at least ${MIN_SESSION_KEY_LENGTH} (e.g. openssl rand -base64 48)`,
      );
    return new SessionSeal(
      lines.map((line) => Buffer.from(line, 'utf8')),
      true,
    );
  }

  static fromFile(path: string): SessionSeal {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    return SessionSeal.fromText(text);
  }

  /**
   * `payload` sealed for `purpose` until `expiresAt` (epoch ms): JSON, deflated (a token inside
   * is base64 text, and a browser keeps 4 KB a cookie), then encrypted.
   */
  async seal(purpose: SealPurpose, payload: object, expiresAt: number): Promise<string> {
    const [key] = this.keys;
    if (key === undefined) throw new Error('no session key');
    const plaintext = deflateRawSync(JSON.stringify({ ...payload, exp: expiresAt }));
    return new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: purpose, kid: key.id })
      .encrypt(key.encryption);
  }

  /**
   * What `value` was sealed with, when sealed for `purpose` by a key of this console and not yet
   * expired; undefined for anything else (another key, another purpose, altered, expired).
   */
  async unseal(purpose: SealPurpose, value: string | undefined, now = Date.now()) {
    if (value === undefined || value.length === 0 || value.length > SESSION_COOKIE_MAX_BYTES)
      return undefined;
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(
        value,
        (header) => {
          const key = this.keys.find((each) => each.id === header.kid);
          if (key === undefined) throw new Error('sealed with another key');
          return key.encryption;
        },
        { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] },
      );
      // The header is authenticated with the content: a session is never taken for a sign-in.
      if (protectedHeader.typ !== purpose) return undefined;
      const payload: unknown = JSON.parse(
        inflateRawSync(plaintext, { maxOutputLength: 64 * 1024 }).toString('utf8'),
      );
      if (typeof payload !== 'object' || payload === null) return undefined;
      const { exp } = payload as { exp?: unknown };
      if (typeof exp !== 'number' || now >= exp) return undefined;
      return payload as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
}
