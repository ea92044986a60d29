// A stand-in MongoDB server for the driver path where no mongod can be had
// (MongoDB is not a Debian package): it speaks the wire protocol (OP_QUERY
// legacy hello and OP_MSG), answers hello and ping, and refuses every SASL
// authentication the way mongod does (code 18, AuthenticationFailed). It is a
// third-party server's stand-in, not a mock of our code: the official driver
// runs unchanged against it. Commands received are recorded for assertions.
import { BSON, type Document } from 'bson'
import { createServer, type Socket } from 'node:net'

const OP_REPLY = 1
const OP_QUERY = 2004
const OP_MSG = 2013

export interface FakeMongo {
  port: number
  /** First key of every command received, in order (hello, ping, saslStart, ...). */
  commands: string[]
  close(): Promise<void>
}

function answer(cmd: Document): Document {
  const name = Object.keys(cmd)[0] ?? ''
  switch (name.toLowerCase()) {
    case 'hello':
    case 'ismaster':
      return {
        ismaster: true, isWritablePrimary: true, helloOk: true, maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000,
        maxWriteBatchSize: 100_000, localTime: new Date(), minWireVersion: 0, maxWireVersion: 21, readOnly: false, connectionId: 1, ok: 1,
      }
    case 'saslstart':
    case 'saslcontinue':
    case 'authenticate':
      return { ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' }
    default:
      return { ok: 1 }
  }
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16)
  h.writeInt32LE(length, 0)
  h.writeInt32LE(requestId, 4)
  h.writeInt32LE(responseTo, 8)
  h.writeInt32LE(opCode, 12)
  return h
}

/** One complete message in, its reply out (null: not a message this server understands). */
function reply(msg: Buffer, commands: string[]): Buffer | null {
  const requestId = msg.readInt32LE(4)
  const opCode = msg.readInt32LE(12)
  if (opCode === OP_QUERY) {
    let p = 20
    while (msg[p] !== 0) p++ // fullCollectionName
    p += 1 + 8 // NUL, numberToSkip, numberToReturn
    const cmd = BSON.deserialize(msg.subarray(p, p + msg.readInt32LE(p)))
    commands.push(Object.keys(cmd)[0] ?? '')
    const doc = BSON.serialize(answer(cmd))
    const body = Buffer.alloc(20)
    body.writeInt32LE(1, 16) // numberReturned; flags, cursorID, startingFrom stay 0
    return Buffer.concat([header(16 + body.length + doc.length, requestId + 1, requestId, OP_REPLY), body, doc])
  }
  if (opCode === OP_MSG) {
    // flagBits, then a kind-0 section: the command document.
    if (msg[20] !== 0) return null
    const cmd = BSON.deserialize(msg.subarray(21, 21 + msg.readInt32LE(21)))
    commands.push(Object.keys(cmd)[0] ?? '')
    const doc = BSON.serialize(answer(cmd))
    return Buffer.concat([header(16 + 4 + 1 + doc.length, requestId + 1, requestId, OP_MSG), Buffer.alloc(5), doc])
  }
  return null
}

export async function startFakeMongo(): Promise<FakeMongo> {
  const commands: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((s) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
    s.on('error', () => undefined)
    let buf = Buffer.alloc(0)
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
        const len = buf.readInt32LE(0)
        const out = reply(buf.subarray(0, len), commands)
        buf = buf.subarray(len)
        if (out === null) {
          s.destroy()
          return
        }
        s.write(out)
      }
    })
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port))
  })
  return {
    port,
    commands,
    close: () => {
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
