// Secrets at rest: AES-256-GCM with the operator's LOOKOUT_SECRET_KEY, a fresh
// 96-bit nonce per box, and associated data binding a box to its record (a box
// copied onto another record does not open).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const VERSION = 1
const NONCE_BYTES = 12
const TAG_BYTES = 16

export class SecretBox {
  readonly #key: Buffer
  /** Names the key (not secret): a box records which key sealed it. */
  readonly keyId: string

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes')
    this.#key = Buffer.from(key)
    this.keyId = createHash('sha256').update('lookout-secret-key-id').update(key).digest('hex').slice(0, 16)
  }

  /** version(1) | nonce(12) | tag(16) | ciphertext */
  seal(plaintext: Buffer, context: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES)
    const c = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES })
    c.setAAD(Buffer.from(context))
    const body = Buffer.concat([c.update(plaintext), c.final()])
    return Buffer.concat([Buffer.from([VERSION]), nonce, c.getAuthTag(), body])
  }

  /** The plaintext; throws when the box was altered, moved, or sealed with another key. */
  open(box: Buffer, context: string): Buffer {
    if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION) throw new Error('not a sealed box')
    const d = createDecipheriv('aes-256-gcm', this.#key, box.subarray(1, 1 + NONCE_BYTES), { authTagLength: TAG_BYTES })
    d.setAAD(Buffer.from(context))
    d.setAuthTag(box.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES))
    return Buffer.concat([d.update(box.subarray(1 + NONCE_BYTES + TAG_BYTES)), d.final()])
  }
}
