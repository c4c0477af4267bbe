/** Glance's public SDK. */
export { Client } from './client/client';
export type { ClickAction, ScrollDirection, TypeOptions, PressOptions, ScrollOptions, ExecOptions, CommandEvent, FindResult, AiUsageEvent, Recorder, RecordedStep, RecordedSuggestion, CheckKind } from './client/client';
export { Element, ElementNotFoundError } from './client/element';
export type { CacheInfo } from './client/element';
export type { ClientOptions, ConnectOptions, FindOptions, FindAllOptions, AssertOptions, CacheOptions, RedrawOptions, AiOptions, Os, Preview } from './config/options';
export type { SandboxInstance } from './service/service';
export { GlanceError, InvalidOptionError, AuthError, StateError, SandboxError, QuotaError, ExecError, AssertionError, VisionModelError, VisionModelRequiredError } from './config/errors';
export { ConnectionError } from './sandbox/http-client';
export type { FamilyName } from './config/vision';
