CREATE TABLE "youtube_dearrow_cache" (
	"video_id" text PRIMARY KEY NOT NULL,
	"title" text,
	"thumbnail_time" real,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_dearrow_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"mode" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_feed_filters" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"muted_words" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_group_channels" (
	"group_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "youtube_group_channels_group_id_channel_id_pk" PRIMARY KEY("group_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_groups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_muted_videos" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"category_id" integer NOT NULL,
	"kind" text NOT NULL,
	CONSTRAINT "youtube_muted_videos_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
ALTER TABLE "youtube_dearrow_cache" ADD CONSTRAINT "youtube_dearrow_cache_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_dearrow_settings" ADD CONSTRAINT "youtube_dearrow_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_feed_filters" ADD CONSTRAINT "youtube_feed_filters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_group_channels" ADD CONSTRAINT "youtube_group_channels_group_id_youtube_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."youtube_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_group_channels" ADD CONSTRAINT "youtube_group_channels_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_groups" ADD CONSTRAINT "youtube_groups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_muted_videos" ADD CONSTRAINT "youtube_muted_videos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_muted_videos" ADD CONSTRAINT "youtube_muted_videos_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "youtube_groups_user_idx" ON "youtube_groups" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "youtube_muted_videos_user_channel_idx" ON "youtube_muted_videos" USING btree ("user_id","channel_id","category_id","kind");--> statement-breakpoint
CREATE INDEX "youtube_muted_videos_video_idx" ON "youtube_muted_videos" USING btree ("video_id");