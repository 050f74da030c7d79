/**
 * Subsonic error codes (the Subsonic API, "Error handling"; names as Navidrome's
 * server/subsonic/responses gives them). Every refusal is one of these inside a 200 answer.
 */
export const ErrorGeneric = 0
export const ErrorMissingParameter = 10
export const ErrorClientTooOld = 20
export const ErrorServerTooOld = 30
export const ErrorAuthenticationFail = 40
export const ErrorTokenAuthNotSupported = 41
export const ErrorAuthMechanismNotSupported = 42
export const ErrorMultipleAuths = 43
export const ErrorInvalidApiKey = 44
export const ErrorAuthorizationFail = 50
export const ErrorTrialExpired = 60
export const ErrorDataNotFound = 70
