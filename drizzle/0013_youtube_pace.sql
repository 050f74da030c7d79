CREATE TABLE "youtube_pace" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"last_start_at" timestamp with time zone,
	"paused_until" timestamp with time zone,
	"paused_at" timestamp with time zone,
	"pause_cause" text,
	"strikes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_starts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "waiting_reason" text;--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "waiting_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "youtube_starts_at_idx" ON "youtube_starts" USING btree ("at");