/**
 * @module
 * The send policy: (resolved limits, user options, surface) → a conversation driver's options.
 */
export {
  NO_RESENDS,
  type PolicyCounting,
  type PolicyLimits,
  type ReserveReason,
  type SendPolicy,
  type SendPolicyOptions,
  type SendSurface,
  sendPolicy,
  TOOL_RESULTS_SHARE,
  toolResultLimit,
  type UserSendOptions,
} from './send-policy.js';
