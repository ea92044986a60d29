// Parses one private key with sshpk in a worker thread: an encrypted OpenSSH
// key runs bcrypt-pbkdf for as many rounds as the key file asks (seconds of
// CPU for a hostile file), and a wrong PEM passphrase makes sshpk throw from a
// stream callback; here neither can stall or crash the server.
import { parentPort, workerData } from 'node:worker_threads'
import sshpk from 'sshpk'

export interface ParseRequest {
  key: string
  passphrase: string
  /** Also answer the key unencrypted in OpenSSH format (for the managed runtime's ssh client, never for a response). */
  export?: boolean
}

export type ParseReply =
  | { ok: true; type: string; bits: number; curve: string | null; fingerprint: string; encrypted: boolean; openssh?: string }
  | { ok: false; reason: 'unparsable' | 'public_key' | 'passphrase_missing' | 'passphrase_wrong' }

function parse({ key, passphrase, export: exportKey }: ParseRequest): ParseReply {
  let encrypted = false
  let parsed: sshpk.PrivateKey | null = null
  try {
    parsed = sshpk.parsePrivateKey(key, 'auto')
  } catch (err) {
    const e = err as Error
    if (e.name === 'KeyEncryptedError') encrypted = true
    else return { ok: false, reason: /not a private key/i.test(e.message) ? 'public_key' : 'unparsable' }
  }
  if (encrypted) {
    if (passphrase === '') return { ok: false, reason: 'passphrase_missing' }
    try {
      parsed = sshpk.parsePrivateKey(key, 'auto', { passphrase })
    } catch {
      return { ok: false, reason: 'passphrase_wrong' }
    }
  }
  const k = parsed as sshpk.PrivateKey
  return {
    ok: true,
    type: k.type,
    bits: k.size,
    curve: k.curve ?? null,
    fingerprint: k.fingerprint('sha256').toString(),
    encrypted,
    ...(exportKey === true ? { openssh: k.toString('openssh') } : {}),
  }
}

// sshpk can throw again from a stream callback after it has answered (wrong PEM passphrase).
process.on('uncaughtException', () => process.exit(0))
parentPort?.postMessage(parse(workerData as ParseRequest))
