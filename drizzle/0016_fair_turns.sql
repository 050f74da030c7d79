CREATE TABLE "job_fair_lanes" (
	"lane" text PRIMARY KEY NOT NULL,
	"vtime" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_fair_owners" (
	"lane" text NOT NULL,
	"owner" text NOT NULL,
	"last_seq" bigint NOT NULL,
	CONSTRAINT "job_fair_owners_lane_owner_pk" PRIMARY KEY("lane","owner")
);
--> statement-breakpoint
CREATE TABLE "youtube_waiters" (
	"id" uuid PRIMARY KEY NOT NULL,
	"owner" text,
	"rank" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "youtube_starts" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "youtube_starts" ADD COLUMN "rank" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "youtube_waiters_seen_idx" ON "youtube_waiters" USING btree ("seen_at");--> statement-breakpoint
CREATE INDEX "youtube_starts_owner_idx" ON "youtube_starts" USING btree ("owner","at");