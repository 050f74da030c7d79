CREATE TABLE "youtube_websub" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"secret" text NOT NULL,
	"topic" text NOT NULL,
	"state" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_seconds" integer,
	"verified_at" timestamp with time zone,
	"lease_expires_at" timestamp with time zone,
	"last_push_at" timestamp with time zone,
	"last_queued_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "youtube_websub" ADD CONSTRAINT "youtube_websub_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "youtube_websub_token_idx" ON "youtube_websub" USING btree ("token");