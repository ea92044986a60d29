// Option checks every stage's constructor runs once, with messages naming the option.
import { InvalidOptionError } from './errors.ts'

export function positiveInt(option: string, v: number): number {
  if (!Number.isInteger(v) || v <= 0) throw new InvalidOptionError(option, 'must be a positive integer')
  return v
}

export function positiveNumber(option: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new InvalidOptionError(option, 'must be a positive number')
  return v
}
