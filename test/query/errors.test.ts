// Every code the query stage can raise is documented in query/README.md.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { QUERY_ERROR_CODES } from '../../query/index.ts'

const readme = readFileSync(new URL('../../query/README.md', import.meta.url), 'utf8')
t.ok(Object.keys(QUERY_ERROR_CODES).length > 0)
for (const [code, meaning] of Object.entries(QUERY_ERROR_CODES)) {
  t.ok(meaning.length > 10, `${code} has a meaning`)
  t.ok(readme.includes(code), `${code} is documented in query/README.md`)
}
