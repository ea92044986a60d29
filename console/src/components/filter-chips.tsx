// The active filters as chips: each says what it keeps (= or ≠), with a
// button to remove it and one to flip it between keeping and excluding.
import type { AttrFilter } from '../search-state.ts'

export function FilterChips({ attrs, onRemove, onFlip }: { attrs: readonly AttrFilter[]; onRemove: (a: AttrFilter) => void; onFlip: (a: AttrFilter) => void }) {
  if (attrs.length === 0) return null
  return (
    <ul class="chips filter-chips" aria-label="Active filters">
      {attrs.map((a) => {
        const label = `${a.scope === 'resource' ? '' : 'attr '}${a.key} ${a.negate ? '≠' : '='} ${a.value}`
        return (
          <li key={`${a.scope}.${a.key}=${a.value}`} class={a.negate ? 'neg' : ''} data-testid="chip">
            <button type="button" class="link chip-flip" title={a.negate ? 'Keep only this value instead' : 'Exclude this value instead'}
              aria-label={`${a.negate ? 'Include' : 'Exclude'} ${a.key} ${a.value}`} onClick={() => onFlip(a)}>{label}</button>
            <button type="button" class="chip-x" aria-label={`Remove filter ${label}`} onClick={() => onRemove(a)}>×</button>
          </li>
        )
      })}
    </ul>
  )
}
