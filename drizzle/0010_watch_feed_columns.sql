-- existing watches take their video's channel, category and kind (docs/decisions/130)
ALTER TABLE "youtube_watches" ADD COLUMN "channel_id" text;--> statement-breakpoint
ALTER TABLE "youtube_watches" ADD COLUMN "category_id" integer;--> statement-breakpoint
ALTER TABLE "youtube_watches" ADD COLUMN "kind" text;--> statement-breakpoint
UPDATE "youtube_watches" SET "channel_id" = v."channel_id", "category_id" = v."category_id", "kind" = v."kind" FROM "youtube_videos" v WHERE v."id" = "youtube_watches"."video_id";--> statement-breakpoint
ALTER TABLE "youtube_watches" ALTER COLUMN "channel_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_watches" ALTER COLUMN "category_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_watches" ALTER COLUMN "kind" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "youtube_watches_user_channel_idx" ON "youtube_watches" USING btree ("user_id","channel_id","category_id","kind");--> statement-breakpoint
CREATE INDEX "youtube_watches_video_idx" ON "youtube_watches" USING btree ("video_id");
