// The parser ships no types: it returns prom2json-shaped metric families.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[]
}
