DROP INDEX "youtube_videos_published_channel_idx";--> statement-breakpoint
ALTER TABLE "youtube_channel_video_counts" ADD COLUMN "kind" text DEFAULT 'video' NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_videos" ADD COLUMN "kind" text DEFAULT 'video' NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_channel_video_counts" DROP CONSTRAINT "youtube_channel_video_counts_channel_id_category_id_pk";--> statement-breakpoint
ALTER TABLE "youtube_channel_video_counts" ADD CONSTRAINT "youtube_channel_video_counts_channel_id_category_id_kind_pk" PRIMARY KEY("channel_id","category_id","kind");--> statement-breakpoint
CREATE INDEX "youtube_videos_title_search_idx" ON "youtube_videos" USING gin (to_tsvector('simple', "title"));--> statement-breakpoint
CREATE INDEX "youtube_videos_published_channel_idx" ON "youtube_videos" USING btree ("published_at","id","channel_id","category_id","kind");