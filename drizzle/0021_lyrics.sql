ALTER TABLE "music_jobs" ADD COLUMN "lyrics" text;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "lyrics_source" text;