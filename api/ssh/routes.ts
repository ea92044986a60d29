// Resource SSH key routes. The private key and passphrase are write-only: no
// response, error body or log line ever carries them (this plugin's error
// handler drops the echoed input of validation errors before rendering).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { errorHandler } from '../edge/error-handler.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { NotFoundError, SecretKeyMissingError } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { resourceExists } from '../../workspace/index.ts'
import { SSH_KEY_SET } from '../../workspace/index.ts'
import { checkPrivateKey } from '../../workspace/index.ts'
import { SecretBox } from '../../core/index.ts'
import { deleteSshKey, getSshKey, putSshKey, type SshKeyInput } from '../../workspace/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

export interface SshRoutesOptions {
  db: Sql
  /** LOOKOUT_SECRET_KEY; without it keys cannot be stored (GET and DELETE still work). */
  secretKey?: Buffer
}

const PATH = '/v1/workspaces/:workspace_id/resources/:resource_id/ssh-key'

// No whitespace or control characters, and no leading '-' (an ssh client would read it as an option).
const HOST_RE = /^[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*$/

function secretSafeErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  if (err.validation !== undefined) {
    for (const v of err.validation) delete (v as { data?: unknown }).data
  } else if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    // JSON.parse quotes the text around the error: it may be part of a key.
    errorHandler(new RequestInvalid([detail(['body'], 'JSON decode error', 'json_invalid')]) as never, req, reply)
    return
  }
  errorHandler(err, req, reply)
}

export async function sshRoutes(app: FastifyInstance, opts: SshRoutesOptions): Promise<void> {
  const { db } = opts
  const box = opts.secretKey === undefined ? null : new SecretBox(opts.secretKey)
  app.setErrorHandler(secretSafeErrors)

  const target = async (req: FastifyRequest): Promise<{ ws: string; rid: string }> => {
    const ws = principalOf(req).workspaceId
    const rid = (req.params as { resource_id: string }).resource_id
    if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
    return { ws, rid }
  }

  app.get(PATH, { config: { auth: { contract: 'cloud', scope: null }, access: OWNER_ONLY }, schema: { params: RESOURCE_PARAMS } }, async (req) => {
    const { ws, rid } = await target(req)
    return getSshKey(db, ws, rid)
  })

  app.put(PATH, { config: { auth: { contract: 'cloud', scope: SCOPES.resourcesWrite }, access: OWNER_ONLY }, schema: { params: RESOURCE_PARAMS, body: SSH_KEY_SET } }, async (req) => {
    if (box === null) throw new SecretKeyMissingError()
    const { ws, rid } = await target(req)
    const input = req.body as SshKeyInput
    if (!HOST_RE.test(input.host)) {
      throw new RequestInvalid([detail(['body', 'host'], 'A host name or address: no spaces or control characters, and not starting with -', 'value_error')])
    }
    const facts = await checkPrivateKey(input.private_key, input.passphrase)
    return putSshKey(db, box, ws, rid, input, facts)
  })

  app.delete(PATH, { config: { auth: { contract: 'cloud', scope: SCOPES.resourcesWrite }, access: OWNER_ONLY }, schema: { params: RESOURCE_PARAMS } }, async (req) => {
    const { ws, rid } = await target(req)
    const removed = await deleteSshKey(db, ws, rid)
    return { resource_id: rid, removed: true, alias: removed.alias, destination: removed.destination, fingerprint: removed.fingerprint }
  })
}
