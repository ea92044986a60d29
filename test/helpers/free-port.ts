// A loopback TCP port for a server a test starts on it. Taken below the kernel's
// ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default), from which
// outgoing connections take their source ports and `listen(0)` its ports: a port
// handed out from that range can be taken before the server binds it (seen: a NATS
// node of the fault tests' cluster exiting on "address already in use" while its
// peers opened route connections, 1 start in ~70 on a busy machine).
import { randomInt } from 'node:crypto'
import { createServer } from 'node:net'

const LOW = 20_000
const HIGH = 32_767

/** A port no one listens on right now, from 20000-32767 (random, so that parallel test processes rarely try the same one). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = randomInt(LOW, HIGH + 1)
    if (await canListen(port)) return port
  }
  throw new Error(`no free loopback port in ${LOW}-${HIGH} after 100 tries`)
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}
