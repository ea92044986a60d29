// Given to every test process by the tap configuration (package.json, node-arg). tap's
// processinfo hook records each file a process loads, reading every file again, for
// `tap --changed` and coverage; this suite uses neither. Its runner sets the file filter
// for the test processes themselves, but the processes and worker threads a test starts
// (lookout serve, the desktop, the CLI, decoder and key workers) take it from here:
// excluding every file there saves about 0.75 s of CPU per CLI process (0.9 -> 1.65 s).
process.env._TAPJS_PROCESSINFO_EXCLUDE_ = '/./'
