ALTER TABLE "music_jobs" ADD COLUMN "track_number" integer;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "track_count" integer;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "year" integer;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "split_chapters" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "remove_segments" text[];--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "tracks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "notice" text;