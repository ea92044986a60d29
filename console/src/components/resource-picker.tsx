import type { Resource } from '../types.ts'

export function ResourcePicker({ resources, value, onChange, all }: { resources: Resource[]; value: string; onChange: (rid: string) => void; all?: string | undefined }) {
  return (
    <label class="picker">
      <span>Resource</span>
      <select aria-label="Resource" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {all !== undefined && <option value={all}>All resources</option>}
        {resources.map((r) => <option key={r.id} value={r.id}>{r.name || r.external_id}</option>)}
      </select>
    </label>
  )
}
