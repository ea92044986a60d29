// Under the test command (deploy/bootstrap.sh test sets LOOKOUT_TEST_REQUIRE_SERVERS=1,
// having installed every server package the tests start), a missing server is an
// error, never a skip: a test that skips there would stay green without running.
export function availableOrRequired(ok: boolean, what: string): boolean {
  if (!ok && process.env.LOOKOUT_TEST_REQUIRE_SERVERS === '1') {
    throw new Error(`${what} not found, though the test command installs it (LOOKOUT_TEST_REQUIRE_SERVERS=1)`)
  }
  return ok
}
