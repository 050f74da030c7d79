CREATE TABLE "youtube_channel_video_counts" (
	"channel_id" text NOT NULL,
	"category_id" integer NOT NULL,
	"videos" integer NOT NULL,
	CONSTRAINT "youtube_channel_video_counts_channel_id_category_id_pk" PRIMARY KEY("channel_id","category_id")
);
--> statement-breakpoint
DROP INDEX "youtube_videos_published_idx";--> statement-breakpoint
ALTER TABLE "youtube_channel_video_counts" ADD CONSTRAINT "youtube_channel_video_counts_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "youtube_videos_published_channel_idx" ON "youtube_videos" USING btree ("published_at","id","channel_id","category_id");--> statement-breakpoint
-- backfill the counts for videos stored before this migration
INSERT INTO "youtube_channel_video_counts" ("channel_id", "category_id", "videos") SELECT "channel_id", "category_id", count(*)::int FROM "youtube_videos" GROUP BY 1, 2;
