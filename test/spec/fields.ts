/**
 * SPEC.md part 2, field by field, per component. A bare name is checked for presence; `name:integer`,
 * `:number`, `:boolean`, `:array` or `:object` also checks the declared type (null aside).
 */
const F = (text: string) => text.trim().split(/\s+/);

export const FIELDS: Record<string, string[]> = {
  SecurityStatus: F("methods:array passkeys:array totp_enabled:boolean user:object"),
  Passkey: F("created_at id last_used_at name"),
  UserProfile: F(`avatar_url composer_experience created_at display_name email email_verified:boolean has_password:boolean id
    is_admin:boolean is_managed:boolean legal_acceptance_required:boolean legal_accepted_at managed_organization_name
    password_usable:boolean privacy_version public_profile_enabled:boolean public_profile_visible_fields:array terms_version username`),
  VoiceProfile: F(
    "assigned_account_ids:array created_at updated_at definition:object id name workspace_id is_default:boolean revision:integer schema_version:integer",
  ),
  VoiceDefinition: F(`boundaries:array disliked_patterns:array expertise:array forbidden_phrases:array opinions:array
    recurring_expressions:array traits:array vocabulary:array formality humor identity_summary preferred_language
    corrections:array examples:array interview_answers:array`),
  DesignResponse: F("can_edit:boolean cover_preview_media_id created_at created_by_id document:object id revision:integer updated_at workspace_id"),
  TemplateResponse: F("built_in:boolean category created_at document:object id name preset_key preview_media_id updated_at workspace_id"),
  ListTemplatesOutputBody: F("can_edit:boolean templates:array"),
  ImageDocument: F(`brand_kit_id brand_kit_revision:integer height_px:integer width_px:integer preset_key schema_version:integer title
    export_defaults:object pages:array`),
  Page: F(`id name background_color latest_export_media_id preview_media_id color_grade_version:integer background:object
    color_grade:object guides:object layers:array`),
  Gradient: F("type start:object end:object reverse:boolean stops:array"),
  Curves: F("bluePoints greenPoints masterPoints redPoints"),
  Wheels: F(`gain:number gamma:number highlightsAmount:number highlightsHue:number lift:number midtonesAmount:number
    midtonesHue:number offset:number offsetAmount:number offsetHue:number shadowsAmount:number shadowsHue:number`),
  ColorGrade: F(`brightness:number contrast:number exposure:number highlights:number hue:number saturation:number shadows:number
    temperature:number tint:number vibrance:number curves:object wheels:object`),
  Layer: F(`id name parent_id locked:boolean visible:boolean opacity:number type transform:object effects:object erase_mask:object
    image:object mask:object paint:object shape:object text:object`),
  LayerTransform: F("flip_x:boolean flip_y:boolean height:number rotation:number width:number x:number y:number"),
  TextContent: F(`align color curve:object font_asset_id font_family font_style font_size:number letter_spacing:number
    line_height:number font_weight:integer highlight_color shadow:object strike:boolean underline:boolean stroke_color
    stroke_width:number text wrap`),
  VideoProjectResponse: F(`attention_reason created_at created_by_user_id document:object head_revision:integer id name
    preview_object_key retention_expires_at sync_status trashed_at updated_at updated_by_user_id workspace_id`),
  VideoProjectMutationResponse: F("conflict_id conflict_name outcome overlap_targets:array project:object revision:integer"),
  PublicationResponse: F(`actual_run_at audience content_profile created_at created_by creation_preset failure_dismissed_at goal
    id intent scheduled_at social_set_id source_text source_url status title updated_at workspace_id media:array
    segments:array renditions:array metadata:object random_delay_inherited:boolean random_delay_minutes:integer
    revision:integer repost_override:object`),
  PublicationMedia: F(`alt_text analysis_error analysis_status aspect_ratio dominant_type id mime_type original_filename
    poster_thumbnail_url public_url_checked_at public_url_error role url thumbnail_url display_order:integer
    duration_ms:integer height:integer width:integer size:integer public_url_status:integer thumbnail_timestamp_ms:integer
    frame_rate:number public_url_ready:boolean settings:object`),
  PublicationSegment: F("body description id title url media:array position:integer settings:object"),
  Rendition: F(`body description error_action error_code error_kind error_message error_retry_at external_id external_url id
    output_profile platform profile publication_id schedule_override social_account_id status target_key title
    error_http_status:integer error_retryable:boolean format_locked:boolean delivery:object media:array segments:array
    settings:object`),
  RenditionSegment: F(`body body_override description description_override error_action error_code error_kind error_message
    error_retry_at external_id external_url id publication_segment_id status title title_override url url_override
    error_http_status:integer position:integer media:array media_inherited:boolean settings:object`),
  Delivery: F(`current_attempt_created_at current_attempt_id error_code error_kind external_id external_url last_reconciled_at
    next_reconciliation_at state target_key terminal_reason current_attempt_number:integer error_http_status:integer
    recovery_action`),
  RepostRule: F(`delay_seconds:integer evaluation_window_seconds:integer min_comments:integer min_likes:integer
    min_reposts:integer min_views:integer plateau_checks:integer require_plateau:boolean stages:array threshold_mode`),
  RepostOverride: F("mode rule:object target_account_ids:array"),
  ActionOutputBody: F("activation_publication_id job_id message publication_id renditions:array revision:integer workspace_activated:boolean"),
  ActionRendition: F("delivery:object id platform social_account_id status target_key"),
  Build: F(`created_at error_code error_message id phase publication_id social_set_id state updated_at voice_profile_id
    workspace_id revision:integer assets:array context_urls:array input:object result:object`),
  BuildInput: F("destination_policy destinations:array direction:object idea sources:array"),
  BuildInputDestination: F("account_id label platform allowed_output_profiles:array voice:object"),
  BuildOutputProfile: F("allowed_mimes:array key max_segments:integer media_max_count:integer text_limit:integer"),
  BuildResult: F("canonical_text destinations:array direction:object review_flags:array skipped:array sources:array"),
  BuildResultDestination: F(`account_id archetype objective output_profile platform preview claims:array follow_up_notes:array
    media:array segments:array warnings:array`),
  BuildResultDirection: F("angle audience canonical_text outcome route thesis claims:array factual_kernel:array media:array destinations:array"),
  DiscoveryResult: F("generated_at model opportunities:array"),
  Opportunity: F("hook id signal_date title why_it_fits why_now angles:array platform_treatments:array"),
  Overview: F(`account_growth_scope accounts:array content:array content_next_cursor content_total:integer coverage:array
    follower_series:array generated_at insights:array last_synced_at publication_next_cursor publication_total:integer
    publications:array range_days:integer source summary:object trends:object`),
  AnalyticsAccount: F(`account_supported:boolean content_supported:boolean stale:boolean avatar_url error_code error_message id
    platform status username follower_delta:integer follower_series:array last_synced_at next_sync_at
    metric_metadata:object metrics:object missing_account_scopes:array missing_content_scopes:array`),
  MetricMetadata: F("aggregation period_start period_end scale:number source unit"),
  ContentItem: F(`account_id content_profile error_code error_message excerpt external_url platform publication_id rendition_id
    status title username engagement:integer collected_at last_synced_at next_sync_at published_at measurements:object
    metric_availability metric_metadata:object metrics:object reference:object source stale:boolean`),
  Coverage: F(`account_id description failure_code failure_message platform status initial_items_discovered:integer
    backfill_watermark initial_completed_at last_attempted_at last_success_at next_eligible_at`),
  Insight: F(`account_id metric platform username caveat comparison_sample:integer destination_count:integer
    measured_count:integer content:object kind period:object reason status value:number`),
  PublicationAnalytics: F(`engagement:integer engagement_measured:integer excerpt publication_id title last_synced_at
    published_at measured:object metrics:object renditions:array`),
  AnalyticsSummary: F("engagement:object followers:object impressions:object reach:object views:object follower_scope published:integer"),
  AnalyticsTrends: F("engagement:array followers:array views:array"),
  Provider: F(`auth_mode description display_name installation_id instance_url name platform status capabilities:array
    configured_connection_modes:array connection_modes:array configured:boolean connection_readiness:object readiness:object`),
  Readiness: F(`advertisable:boolean analytics_ready:boolean connectable:boolean discoverable:boolean executable:boolean
    observable:boolean publishable:boolean blockers:array contract_digest state facts:object`),
  AccountResponse: F(`account_avatar_url account_id account_kind account_username fediverse_software id instance_url platform
    provider_installation_id slug capability_checked_at grant_destination_count:integer is_active:boolean
    messages_enabled:boolean messaging_supported:boolean shared_grant:boolean thread_replies_supported:boolean limit_profile`),
  RefreshCapabilityOutcome: F("error_code queued:integer status"),
  RefreshAnalyticsOutputBody: F("message queued:integer"),
  BillingStatusResponse: F(`access_restricted:boolean can_manage_billing:boolean cancel_at_period_end:boolean
    billing_contact_email current_period_end organization_id past_due_since period_start plan_id provider status
    workspace_id limits:object usage:object provider_costs:array`),
  ProviderCost: F(`budget_microusd:integer cost_microusd:integer event_count:integer reserved_cost_microusd:integer
    reserved_event_count:integer reserved_units:integer units:integer currency period_start pricing_source_url provider
    operations:array`),
  SettingsResponse: F("can_manage:boolean supported_platforms:array workspace_id accounts:array grants:array policies:array"),
  RepostAccount: F(`avatar_url id instance_url platform unavailable_reason username workspace_id workspace_name
    cross_workspace:boolean grant_active:boolean grant_required:boolean supports_repost:boolean`),
  RepostGrant: F(`created_at id platform source_workspace_id source_workspace_name target_account_id target_username
    target_workspace_id target_workspace_name direction`),
  RepostPolicy: F("created_at id name updated_at enabled:boolean rule:object source_account_ids:array target_account_ids:array"),
  InstanceSettingsResponse: F("requires_restart:boolean settings:array"),
  InstanceSetting: F(`configured:boolean database_override_configured:boolean editable:boolean optional:boolean
    requires_restart:boolean secret:boolean secret_configured:boolean description group key label managed_by updated_at
    value environment_variables:array options:array source type`),
  ListMediaOutputBody: F("media:array total:integer"),
  MediaItem: F(`alt_text analysis_error analysis_status asset_kind audio_codec color_space container_format created_at
    design_document_id design_page_id id last_used_at mime_type original_filename parent_media_id pixel_format
    poster_thumbnail_url processing_status public_url_checked_at public_url_error purge_after source thumbnail_url
    trashed_at url video_codec video_profile workspace_id audio_channels:integer bit_rate:integer duration_ms:integer
    height:integer width:integer processing_progress:integer public_url_status:integer rotation:integer size:integer
    usage_count:integer frame_rate:number can_delete:boolean is_favorite:boolean tags:array retention_class trash_reason`),
};
