// Hands a tunnel's byte stream to a driver that can only dial: a Unix socket
// in a fresh 0700 directory (only this user can connect to it), accepting one
// connection and piping it to the channel. Drivers dial it unchanged (pg takes
// the directory as host, mysql2 and redis a socket path).
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Channel } from './ssh.ts'

export interface Bridge {
  dir: string
  path: string
  close(): void
}

export async function bridge(channel: Channel, name: string): Promise<Bridge> {
  const dir = await mkdtemp(join(tmpdir(), 'lookout-tunnel-'))
  const path = join(dir, name)
  let peer: Socket | null = null
  const server = createServer((socket) => {
    // One connection per tunnel: the probe's.
    server.close()
    if (peer !== null) {
      socket.destroy()
      return
    }
    peer = socket
    socket.on('error', () => undefined)
    socket.pipe(channel.writable)
    channel.readable.pipe(socket)
    socket.once('close', () => channel.close())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => resolve())
  })
  return {
    dir,
    path,
    close() {
      server.close()
      ;(peer as Socket | null)?.destroy()
      channel.close()
      void rm(dir, { recursive: true, force: true })
    },
  }
}
