// Checks a private key before it is stored: parsed by sshpk (in a worker, see
// parse-worker.ts), decrypted with its passphrase when encrypted, and of a type
// OpenSSH accepts today. The result carries only public facts (type, size,
// SHA256 fingerprint as `ssh-keygen -lf` prints it), never key material.
import { Worker } from 'node:worker_threads'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import type { ParseReply } from './parse-worker.ts'

export interface KeyFacts {
  type: string
  bits: number
  fingerprint: string
  encrypted: boolean
}

const WORKER_URL = new URL('./parse-worker.ts', import.meta.url)
const PARSE_TIMEOUT_MS = 10_000
const MAX_PARALLEL = 2
const MIN_RSA_BITS = 2048

let running = 0
const waiting: (() => void)[] = []

async function slot(): Promise<() => void> {
  if (running >= MAX_PARALLEL) await new Promise<void>((r) => waiting.push(r))
  running++
  return () => {
    running--
    waiting.shift()?.()
  }
}

function runWorker(key: string, passphrase: string, exportKey = false): Promise<ParseReply | 'timeout' | 'crashed'> {
  return new Promise((resolve) => {
    const w = new Worker(WORKER_URL, { workerData: { key, passphrase, export: exportKey }, resourceLimits: { maxOldGenerationSizeMb: 64 }, stdout: true, stderr: true })
    let settled = false
    const done = (v: ParseReply | 'timeout' | 'crashed') => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void w.terminate()
      resolve(v)
    }
    const timer = setTimeout(() => done('timeout'), PARSE_TIMEOUT_MS)
    w.once('message', (m: ParseReply) => done(m))
    // The error itself is not reported anywhere: it may quote the input.
    w.once('error', () => done('crashed'))
    w.once('exit', () => done('crashed'))
  })
}

const REASONS = {
  unparsable: ['private_key', 'ssh_key_invalid', 'Not a private key sshpk can read (OpenSSH, PEM/PKCS#1 or PKCS#8)'],
  public_key: ['private_key', 'ssh_key_invalid', 'This is a public key; the private key is required'],
  passphrase_missing: ['passphrase', 'ssh_key_encrypted', 'The private key is encrypted: give its passphrase'],
  passphrase_wrong: ['passphrase', 'ssh_key_passphrase', 'The passphrase does not decrypt the private key'],
  timeout: ['private_key', 'ssh_key_invalid', 'The private key could not be checked in time (its key derivation is too costly)'],
  crashed: ['private_key', 'ssh_key_invalid', 'Not a private key sshpk can read, or the passphrase does not decrypt it'],
} as const

/** The key's public facts, or a 422 naming what is wrong (without quoting the input). */
export async function checkPrivateKey(key: string, passphrase: string): Promise<KeyFacts> {
  const release = await slot()
  let r: ParseReply | 'timeout' | 'crashed'
  try {
    r = await runWorker(key, passphrase)
  } finally {
    release()
  }
  if (r === 'timeout' || r === 'crashed' || !r.ok) {
    const [field, type, msg] = REASONS[typeof r === 'string' ? r : r.reason]
    throw new RequestInvalid([detail(['body', field], msg, type)])
  }
  if (r.type !== 'ed25519' && r.type !== 'ecdsa' && r.type !== 'rsa') {
    throw new RequestInvalid([detail(['body', 'private_key'], `Key type ${r.type} is not accepted: use ed25519, ecdsa or rsa (2048 bits or more)`, 'ssh_key_type')])
  }
  if (r.type === 'rsa' && r.bits < MIN_RSA_BITS) {
    throw new RequestInvalid([detail(['body', 'private_key'], `An RSA key of ${r.bits} bits is too short: at least ${MIN_RSA_BITS} bits`, 'ssh_key_type')])
  }
  return { type: r.type, bits: r.bits, fingerprint: r.fingerprint, encrypted: r.encrypted }
}

/** The key decrypted and in OpenSSH format, for the managed runtime's ssh client (which cannot be given a passphrase in batch mode). */
export async function exportPrivateKey(key: string, passphrase: string): Promise<string> {
  const release = await slot()
  let r: ParseReply | 'timeout' | 'crashed'
  try {
    r = await runWorker(key, passphrase, true)
  } finally {
    release()
  }
  if (typeof r === 'string' || !r.ok || r.openssh === undefined) throw new Error('the stored SSH key cannot be opened')
  return r.openssh
}
