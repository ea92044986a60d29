// Acknowledge links from alert messages (alerting/alerts/ack-links.ts): GET
// shows what the link would do and a confirm button (it never changes
// anything: mail scanners and chat previews open links); POST confirms. The
// link is the credential, so the routes are public. Every answer is a small
// HTML page for people, under a CSP that allows no script and no style.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Database } from '../../core/index.ts'
import { ACK_PATH, ackLinkKey, confirmAckLink, readAckLink, type AckLinkView } from '../../alerting/index.ts'
import { ANY_GRANT } from '../../desktop/index.ts'

// Its signed, single-use token is the credential: any desktop grant may present it too.
const PUBLIC = { auth: { contract: 'cloud', scope: null, public: true }, access: ANY_GRANT } as const
const PARAMS = {
  type: 'object', required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200, description: 'the link\'s signed token' } },
} as const
const CSP = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
const HTML_RESPONSE = { content: { 'text/html': { schema: { type: 'string' } } } }

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(reply: FastifyReply, status: number, title: string, body: string): string {
  reply.code(status).type('text/html; charset=utf-8')
    .header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('cache-control', 'no-store')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escape(title)} · Lookout</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`
}

/** The pages for a link that cannot acknowledge (forged, used, expired). */
function refused(reply: FastifyReply, v: Exclude<AckLinkView, { state: 'valid' }>): string {
  switch (v.state) {
    case 'forged':
      return page(reply, 404, 'This link is not valid', '<p>This acknowledge link was not issued by this Lookout server, or it was changed (copied incompletely?). Open the incident in the console to acknowledge it.</p>')
    case 'used':
      return page(reply, 410, 'This link was already used', `<p>The incident was acknowledged with this link at ${escape(v.used_at)}${v.acknowledged_by === null ? '' : ` (by ${escape(v.acknowledged_by)})`}. Each link works once.</p>`)
    case 'expired':
      return page(reply, 410, 'This link has expired', '<p>The incident is closed (it recovered), so there is nothing left to acknowledge. The link expired with it.</p>')
  }
}

export async function ackRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  let key: Buffer | null = null
  const keyOf = async () => (key ??= await ackLinkKey(db))
  const url = `${ACK_PATH}/:token`
  // The confirm page's form posts an empty urlencoded body: accepted (and ignored) here only.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, _body, done) => done(null, {}))

  app.get(url, {
    config: PUBLIC,
    schema: {
      summary: 'Lookout extension: the confirm page of an acknowledge link from an alert message (never changes anything)',
      params: PARAMS, response: { 200: { description: 'the confirm page', ...HTML_RESPONSE }, 404: { description: 'forged link', ...HTML_RESPONSE }, 410: { description: 'used or expired link', ...HTML_RESPONSE } },
    },
  }, async (req, reply) => {
    const { token } = req.params as { token: string }
    const v = await readAckLink(db, await keyOf(), token)
    if (v.state !== 'valid') return refused(reply, v)
    const already = v.acknowledged_by === null ? '' : `<p>It is already acknowledged (by ${escape(v.acknowledged_by)}).</p>`
    return page(reply, 200, `Acknowledge the incident on ${v.resource_name}?`,
      `<p>Open since ${escape(v.opened_at)}: ${escape(v.reason)}</p>${already}` +
      `<p>Acknowledging stops its reminders and escalation. You acknowledge as <strong>${escape(v.acknowledger)}</strong>.</p>` +
      `<form method="post" action="${escape(`${ACK_PATH}/${encodeURIComponent(token)}`)}"><button type="submit">Acknowledge</button></form>`)
  })

  app.post(url, {
    config: PUBLIC,
    schema: {
      summary: 'Lookout extension: confirm an acknowledge link (single use; acknowledges as the person the alert was routed to)',
      params: PARAMS, response: { 200: { description: 'acknowledged', ...HTML_RESPONSE }, 404: { description: 'forged link', ...HTML_RESPONSE }, 410: { description: 'used or expired link', ...HTML_RESPONSE } },
    },
  }, async (req, reply) => {
    const { token } = req.params as { token: string }
    const v = await confirmAckLink(db, await keyOf(), token, Date.now())
    if (v.state === 'acknowledged') {
      return page(reply, 200, 'Incident acknowledged', `<p>Acknowledged by ${escape(v.acknowledged_by)} at ${escape(v.acknowledged_at)}. Reminders and escalation stop; the recovery will still be announced.</p>`)
    }
    if (v.state === 'valid') throw new Error('unreachable: a valid link is confirmed')
    return refused(reply, v)
  })
}
