// One Ajv configuration for every request schema: the decoder workers and the
// API's Fastify instance both use it, so a body is judged the same everywhere.
import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { parseIsoTime } from './time.ts'

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats: string[]) => Ajv

export const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  verbose: true,
}

/** Adds the formats the contract names (uuid, date, date-time) to an Ajv instance. */
export function addContractFormats(ajv: Ajv): Ajv {
  addFormats(ajv, ['uuid', 'date', 'uri'])
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIsoTime(s) !== null })
  return ajv
}

export function createAjv(overrides: Options = {}): Ajv {
  return addContractFormats(new Ajv({ ...AJV_OPTIONS, ...overrides }))
}
