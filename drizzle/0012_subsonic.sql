CREATE TABLE "subsonic_passwords" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subsonic_play_queues" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"song_ids" jsonb NOT NULL,
	"current" text,
	"position" bigint DEFAULT 0 NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_by" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subsonic_playlist_entries" (
	"playlist_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"job_id" uuid NOT NULL,
	"track" integer NOT NULL,
	CONSTRAINT "subsonic_playlist_entries_playlist_id_position_pk" PRIMARY KEY("playlist_id","position")
);
--> statement-breakpoint
CREATE TABLE "subsonic_playlists" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"comment" text,
	"public" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subsonic_songs" (
	"job_id" uuid NOT NULL,
	"track" integer NOT NULL,
	"user_id" uuid NOT NULL,
	"file" text,
	"size" bigint,
	"duration" real,
	"bit_rate" integer,
	"track_gain" real,
	"track_peak" real,
	"play_count" integer DEFAULT 0 NOT NULL,
	"played" timestamp with time zone,
	"starred" timestamp with time zone,
	CONSTRAINT "subsonic_songs_job_id_track_pk" PRIMARY KEY("job_id","track")
);
--> statement-breakpoint
CREATE TABLE "subsonic_stars" (
	"user_id" uuid NOT NULL,
	"item_id" text NOT NULL,
	"starred" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subsonic_stars_user_id_item_id_pk" PRIMARY KEY("user_id","item_id")
);
--> statement-breakpoint
ALTER TABLE "subsonic_passwords" ADD CONSTRAINT "subsonic_passwords_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_play_queues" ADD CONSTRAINT "subsonic_play_queues_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_playlist_entries" ADD CONSTRAINT "subsonic_playlist_entries_playlist_id_subsonic_playlists_id_fk" FOREIGN KEY ("playlist_id") REFERENCES "public"."subsonic_playlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_playlist_entries" ADD CONSTRAINT "subsonic_playlist_entries_job_id_music_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."music_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_playlists" ADD CONSTRAINT "subsonic_playlists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_songs" ADD CONSTRAINT "subsonic_songs_job_id_music_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."music_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_songs" ADD CONSTRAINT "subsonic_songs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subsonic_stars" ADD CONSTRAINT "subsonic_stars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subsonic_playlist_entries_job_idx" ON "subsonic_playlist_entries" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "subsonic_playlists_user_idx" ON "subsonic_playlists" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "subsonic_songs_user_idx" ON "subsonic_songs" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "music_jobs_user_completed_idx" ON "music_jobs" USING btree ("user_id","completed","id");