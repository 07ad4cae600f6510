// Org document templates (issue 29, item 5; a SolarDesk extension, docs/documents.md
// "Templates"): how an org's documents of one type look and what their intro and
// terms say. The engine validates and answers with these; the app reads them.
import { z } from 'zod';
import { DOCUMENT_TYPE_NAMES, type DocumentType } from '../documents.ts';

/** The {placeholders} intro and terms text may use, filled per document. */
export const TEMPLATE_PLACEHOLDERS = ['customer_name', 'org_name', 'site_address', 'system_kw', 'module_count', 'price', 'payment_option', 'payback'] as const;

const MAX_TEXT = 20_000;
const colour = () => z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Send a colour as #rrggbb, e.g. #1c5fa8.');

/** Text whose {names} are all placeholders the documents fill. */
const templateText = () =>
  z
    .string()
    .max(MAX_TEXT, `Keep the text under ${MAX_TEXT.toLocaleString('en')} characters.`)
    .superRefine((text, context) => {
      const unknown = [...text.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1]!).filter((name) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name));
      if (unknown.length > 0) {
        context.addIssue({ code: 'custom', message: `Unknown placeholder {${unknown[0]}}. The placeholders are: ${TEMPLATE_PLACEHOLDERS.map((name) => `{${name}}`).join(', ')}.` });
      }
    });

export const documentTemplateWriteSchema = z.object({
  document_type: z.enum(DOCUMENT_TYPE_NAMES as [DocumentType, ...DocumentType[]], { error: `Send document_type as one of: ${DOCUMENT_TYPE_NAMES.join(', ')}.` }),
  title: z.string().trim().min(1, 'Give the template a title.').max(200),
  org_display_name: z.string().max(200).optional(),
  /** An image private file of the org (URL, path or id), or null for none. */
  logo: z.union([z.string(), z.number(), z.null()]).optional(),
  primary_colour: colour().optional(),
  accent_colour: colour().optional(),
  intro_text: templateText().optional(),
  terms_text: templateText().optional(),
});
export type DocumentTemplateWrite = z.infer<typeof documentTemplateWriteSchema>;

/** PATCH: any of the fields; the type of a template does not change. */
export const documentTemplatePatchSchema = documentTemplateWriteSchema.omit({ document_type: true }).partial();
export type DocumentTemplatePatch = z.infer<typeof documentTemplatePatchSchema>;

export const documentTemplateJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org: z.string(),
  document_type: z.string(),
  title: z.string(),
  org_display_name: z.string(),
  logo: z.string().nullable(),
  primary_colour: z.string(),
  accent_colour: z.string(),
  intro_text: z.string(),
  terms_text: z.string(),
  created_date: z.string(),
  modified_date: z.string(),
});
export type DocumentTemplateJson = z.infer<typeof documentTemplateJsonSchema>;

/** The colours of the standard layout, and of a template that sets none. */
export const DEFAULT_TEMPLATE_COLOURS = { primary: '#1c5fa8', accent: '#d98a1c' } as const;
