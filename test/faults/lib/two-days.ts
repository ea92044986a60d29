// Events alternating between yesterday and now: every batch spans two daily
// partitions, so one insert writes two parts and a crash can fall between them.
const DAY_MS = 86_400_000

export const twoDays = (i: number): { timestamp: string } => ({ timestamp: new Date(Date.now() - (i % 2 === 0 ? DAY_MS : 0)).toISOString() })
