CREATE TABLE "tool_cookies" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"sealed" text NOT NULL,
	"count" integer NOT NULL,
	"domains" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "music_jobs" ADD COLUMN "error_kind" text;