// Every table, for drizzle-kit (drizzle.config.ts) and the test databases (tests/support/db.ts).
// Each feature owns its tables in its own tables.ts; this index sits above them all.
export * from './auth/tables.ts'
export * from './webdav/tables.ts'
export * from './music/tables.ts'
export * from './youtube/tables.ts'
export * from './jobs/tables.ts'
export * from './notifications/tables.ts'
export * from './tools/tables.ts'
export * from './subsonic/tables.ts'
export * from './youtube/listen/tables.ts'
export * from './youtube/personal/tables.ts'
export * from './youtube/keep/tables.ts'
export * from './youtube/websub/tables.ts'
