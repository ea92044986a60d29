// ResourceSSHKeySet, as the contract's table gives it.

export const SSH_KEY_SET = {
  type: 'object',
  additionalProperties: false,
  required: ['alias', 'host', 'username', 'private_key'],
  properties: {
    alias: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z][a-z0-9-]*$' },
    host: { type: 'string', minLength: 1, maxLength: 250 },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 22 },
    username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' },
    private_key: { type: 'string', minLength: 1, maxLength: 32768 },
    passphrase: { type: 'string', maxLength: 1024, default: '' },
    // Lookout extension: the SSH server's host key fingerprint, as ssh-keygen -l prints it; without it the
    // managed runtime pins the host key it sees first (trust on first use).
    host_fingerprint: { type: 'string', pattern: '^SHA256:[A-Za-z0-9+/]{43}$' },
  },
} as const

/** Fields whose value must never be echoed back, not even in a 422. */
export const SECRET_FIELDS = ['private_key', 'passphrase'] as const
