// Compile-time proof that the response schemas bind the engine's serializers: the
// serializers declare these inferred types as their return types, so an answer
// that leaves out a field of its schema, or misspells one, must not type-check.
// Each `@ts-expect-error` below fails `tsc` (npm run typecheck) if the contract
// ever stops refusing that mistake. Nothing here runs.
import type { ContactJson } from './contact.ts';
import type { ProjectDetailJson, ProjectListJson } from './project.ts';
import type { RoleJson } from './role.ts';

declare const contact: ContactJson;
const { display: _display, ...contactWithoutDisplay } = contact;

// @ts-expect-error a contact serializer that drops `display` is refused
export const contactMissingAField: ContactJson = contactWithoutDisplay;
// @ts-expect-error a contact serializer that writes `dispaly` for `display` is refused
export const contactMisspelt: ContactJson = { ...contactWithoutDisplay, dispaly: contact.display };
// @ts-expect-error a misspelt field beside the right ones is refused too (the shape is closed)
export const contactExtraField: ContactJson = { ...contact, famly_name: contact.family_name };
// The complete answer is accepted (so the errors above are about the field, not the setup).
export const contactComplete: ContactJson = { ...contactWithoutDisplay, display: contact.display };

declare const role: RoleJson;
const { is_admin: _isAdmin, ...roleWithoutIsAdmin } = role;
// @ts-expect-error a role serializer that drops `is_admin` is refused
export const roleMissingAField: RoleJson = roleWithoutIsAdmin;

declare const project: ProjectDetailJson;
const { stage_warning: _stageWarning, ...projectWithoutStageWarning } = project;
// @ts-expect-error a project serializer that drops `stage_warning` is refused
export const projectMissingAField: ProjectDetailJson = projectWithoutStageWarning;
// @ts-expect-error a project serializer that writes `stage_warnings` for `stage_warning` is refused
export const projectMisspelt: ProjectDetailJson = { ...projectWithoutStageWarning, stage_warnings: project.stage_warning };
// @ts-expect-error a list row without `contacts_data` is refused
export const listRowMissingAField: ProjectListJson = (({ contacts_data: _contactsData, ...row }) => row)(project);
