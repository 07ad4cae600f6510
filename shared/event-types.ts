// The hosted service's fixed table of event kinds (hosted-docs-facts.md 9, "hosted
// docs: Event Types"): an event names its kind by an integer `event_type_id`. The
// engine validates writes against it, maps SolarDesk's own activity names onto it,
// and the renderer shows its titles. One table, here.

/** Every documented id and its title. Ids not listed are unknown (a write naming one is a 400). */
export const EVENT_TYPES: Readonly<Record<number, string>> = {
  0: 'Invitation sent',
  1: 'Invitation read',
  2: 'Proposal viewed',
  3: 'Proposal accepted',
  4: 'Payment made',
  20: 'Call out',
  21: 'Call out, no answer',
  22: 'Call in',
  23: 'Email out',
  24: 'Email in',
  25: 'SMS',
  26: 'Instant message',
  27: 'Meeting',
  28: 'Appointment',
  29: 'Activity (miscellaneous)',
  30: 'Busy',
  31: 'Note',
  32: 'Action complete',
  40: 'On-site installation',
  41: 'On-site maintenance',
  42: 'On-site sales visit',
  44: 'System changed',
  45: 'Project assigned',
  49: 'Finance application accessed',
  50: 'Finance application updated',
  51: 'E-signature contract event',
  52: 'E-signature contract event',
  53: 'E-signature contract event',
  54: 'E-signature contract event',
  55: 'Contact missing phone',
  56: 'Project Stage Changed',
  57: 'E-signature contract event',
  59: 'Finance decision',
  60: 'Financed status',
  61: 'Loan agreement signed',
  62: 'Loan agreement complete',
  63: 'E-signature contract event',
  64: 'E-signature contract event',
  65: 'E-signature contract event',
  66: 'E-signature contract event',
  67: 'E-signature contract event',
  68: 'E-signature contract event',
  71: 'Acceptance documents emailed',
  72: 'Notice to proceed',
  73: 'Disbursement complete',
  74: 'Stipulation documents uploaded',
  75: 'Stipulation cleared',
  91: 'Change order submitted',
  96: 'Assigned to designer',
  97: 'Assigned to salesperson',
  100: 'Project deleted',
  101: 'Stock reduced',
  102: 'Stock increased',
  103: 'Marked sold',
  104: 'Marked installed',
  105: 'Expired proposal viewed',
  106: 'Workflow changed',
  107: 'Duplicated (original)',
  108: 'Duplicated (duplicate)',
  109: 'Invoice sent',
  110: 'Payment form viewed',
  111: 'Invoice cancelled',
  112: 'Payment authorized',
  113: 'Payment overdue',
  114: 'Payment received',
  115: 'Payment failed',
  116: 'Chargeback started',
  117: 'Chargeback done',
  118: 'Refund started',
  119: 'Refund done',
  120: 'Paid offline',
  121: 'Paid offline undone',
  122: 'All payments received',
  123: 'Payment approved',
  130: 'Change order accepted',
  131: 'Change order complete',
  132: 'System option added',
  133: 'System option deleted',
  137: 'Payment reminder sent',
  138: 'Custom invoice sent',
  139: 'Payment milestones adjusted',
  140: 'Payment authorized email',
  141: 'Cancellation email',
  142: 'Payment request email',
};

export const NOTE_EVENT_TYPE_ID = 31;
export const STAGE_CHANGED_EVENT_TYPE_ID = 56;
export const ACTIVITY_EVENT_TYPE_ID = 29;

export function isEventTypeId(id: number): boolean {
  return Number.isInteger(id) && Object.hasOwn(EVENT_TYPES, id);
}

/** The title of a kind, or a plain "Event type N" for an id the table does not name (a newer hosted kind). */
export function eventTypeTitle(id: number): string {
  return isEventTypeId(id) ? EVENT_TYPES[id]! : `Event type ${id}`;
}

/**
 * SolarDesk's own event names (`event_type`) as ids, by the facts page's suggested
 * mapping: note 31, stage_changed 56, and every other activity (project_created,
 * file_added, contact_added, contact_removed, or a name a client sent) 29.
 */
export function eventTypeIdOf(eventType: string): number {
  if (eventType === 'note') return NOTE_EVENT_TYPE_ID;
  if (eventType === 'stage_changed') return STAGE_CHANGED_EVENT_TYPE_ID;
  return ACTIVITY_EVENT_TYPE_ID;
}

/** The `event_type` name of an event that came with an id only (a hosted event, or a create naming only the id). */
export function eventTypeNameOf(eventTypeId: number): string {
  if (eventTypeId === NOTE_EVENT_TYPE_ID) return 'note';
  if (eventTypeId === STAGE_CHANGED_EVENT_TYPE_ID) return 'stage_changed';
  return 'activity';
}

/** The SQL CASE mapping used by store migration 0017: the same as eventTypeIdOf. */
export const EVENT_TYPE_ID_BY_NAME: Readonly<Record<string, number>> = { note: NOTE_EVENT_TYPE_ID, stage_changed: STAGE_CHANGED_EVENT_TYPE_ID };
