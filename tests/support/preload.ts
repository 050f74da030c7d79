// bun test preload: quiet logs unless asked for.
process.env.LOG_LEVEL ??= 'silent'
