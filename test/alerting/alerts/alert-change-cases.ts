// AlertChange bodies the contract refuses, each with the 422 detail's loc and type it must name.
import { randomUUID } from 'node:crypto'

export const op = (operation: string, values: Record<string, unknown> = {}) => ({ operation, values: { operation_id: randomUUID(), ...values } })

export const INVALID_ALERT_CHANGES: [body: unknown, loc: (string | number)[], type: string][] = [
  [{ operation: 'explode', values: { operation_id: randomUUID() } }, ['body', 'operation'], 'enum'],
  [{ operation: 'test' }, ['body', 'values'], 'missing'],
  [{ operation: 'test', values: {} }, ['body', 'values', 'operation_id'], 'missing'],
  [{ operation: 'test', values: { operation_id: 'nope' } }, ['body', 'values', 'operation_id'], 'uuid_parsing'],
  [op('test', { colour: 'red' }), ['body', 'values', 'colour'], 'extra_forbidden'],
  [{ ...op('test'), extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
  [op('save_destination', { channel: 'pager' }), ['body', 'values', 'channel'], 'enum'],
  [op('save_destination', { label: 'x'.repeat(101) }), ['body', 'values', 'label'], 'string_too_long'],
  [op('save_destination', { address: 'x'.repeat(2049) }), ['body', 'values', 'address'], 'string_too_long'],
  [op('verify_destination', { code: 'x'.repeat(65) }), ['body', 'values', 'code'], 'string_too_long'],
  [op('policy', { revision: -1 }), ['body', 'values', 'revision'], 'greater_than_equal'],
  [op('subscribe', { action: 'maybe' }), ['body', 'values', 'action'], 'enum'],
  [op('subscribe', { action: 'subscribe', channels: { email: 'yes' } }), ['body', 'values', 'channels', 'email'], 'enum'],
  // Checks done by the operation itself.
  [op('save_destination', { channel: 'email' }), ['body', 'values', 'address'], 'missing'],
  [op('save_destination', { channel: 'email', address: 'not-an-email' }), ['body', 'values', 'address'], 'value_error'],
  [op('save_destination', { channel: 'sms', address: '0123' }), ['body', 'values', 'address'], 'value_error'],
  [op('save_destination', { channel: 'sms', address: '+14155550123' }), ['body', 'values', 'consent'], 'value_error'],
  [op('save_destination', { channel: 'webhook', address: 'ftp://127.0.0.1/x' }), ['body', 'values', 'address'], 'value_error'],
  [op('save_destination', { channel: 'webhook', address: 'http://169.254.169.254/latest' }), ['body', 'values', 'address'], 'value_error'],
  [op('save_destination', { channel: 'webhook', address: 'http://[fe80::1]/x' }), ['body', 'values', 'address'], 'value_error'],
  [op('request_verification'), ['body', 'values', 'id'], 'missing'],
  [op('acknowledge'), ['body', 'values', 'incident_id'], 'missing'],
  [op('pause_destination', { id: randomUUID() }), ['body', 'values', 'revision'], 'missing'],
  [op('subscribe', { action: 'subscribe', channels: { pager: 'on' } }), ['body', 'values', 'channels', 'pager'], 'value_error'],
  [op('policy', { revision: 0, configuration: { repeat_minutes: -5 } }), ['body', 'values', 'configuration', 'repeat_minutes'], 'greater_than_equal'],
  [op('policy', { revision: 0, configuration: { escalation: [{ after_minutes: 5, destination_ids: [randomUUID()] }] } }),
    ['body', 'values', 'configuration', 'escalation', 0, 'destination_ids', 0], 'value_error'],
]
