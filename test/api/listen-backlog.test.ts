// The API's listen queue holds a flood's connections while the server is busy:
// with the event loop held, 1,500 connections still complete their handshake
// (the kernel queues them for the server), where Node's default backlog of 511
// would leave the rest to SYN retries, SYN cookies and, for a few, a reset
// (test/ingest/flood.test.ts saw a sender's ECONNRESET so in CI).
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { startTestLookout } from '../helpers/lookout.ts'

const CONNECTIONS = 1500
// The kernel caps every listen queue at net.core.somaxconn (4096 on Debian's kernels; a queue of n holds n + 1).
const SOMAXCONN = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))
const EXPECTED = Math.min(CONNECTIONS, SOMAXCONN + 1)
const lk = await startTestLookout()
t.teardown(() => lk.stop())

t.test(`${CONNECTIONS} connections complete while the server cannot accept`, async (t) => {
  const port = Number(new URL(lk.url).port)
  // Another process connects (this one's loop is held): from 300 ms after its start, all at once,
  // and counts the handshakes done within 1.5 s (before a dropped SYN's second retry at 3 s).
  const script = `
    const net = require('node:net')
    const [port, n] = process.argv.slice(1).map(Number)
    let connected = 0
    const sockets = []
    setTimeout(() => {
      for (let i = 0; i < n; i++) {
        const s = net.connect(port, '127.0.0.1', () => { connected++ })
        s.on('error', () => {})
        sockets.push(s)
      }
      setTimeout(() => { console.log(connected); for (const s of sockets) s.destroy(); process.exit(0) }, 1500)
    }, 300)`
  const child = spawn(process.execPath, ['-e', script, String(port), String(CONNECTIONS)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => { out += d.toString() })
  // Hold this process's event loop (the server's) past the child's count.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500)
  await once(child, 'exit')
  t.equal(Number(out.trim()), EXPECTED, `every handshake done while nothing was accepted (somaxconn ${SOMAXCONN})`)
})
