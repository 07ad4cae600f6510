// Generated documents (issue 29; hosted docs "Generating Project Files"): the types,
// the formats each is made in, and the query of POST .../generate_document/<type>/.
// One list for the engine, the app's Documents menu and the tests.
import { z } from 'zod';
import { booleanQueryParam, integerField } from './schemas/coercing-fields.ts';

export type DocumentFormat = 'pdf' | 'csv';

interface DocumentTypeFacts {
  /** In people's words, for the menu and the file's title. */
  readonly title: string;
  /** The formats it is made in; the first is the default. */
  readonly formats: readonly DocumentFormat[];
  /** Whether it prints a payment option's figures: the Documents menu asks for one only then. */
  readonly usesPaymentOption: boolean;
}

/** In the order the Documents menu lists them. */
export const DOCUMENT_TYPES = {
  proposal: { title: 'Proposal', formats: ['pdf'], usesPaymentOption: true },
  proposal_only: { title: 'Proposal (without attachments)', formats: ['pdf'], usesPaymentOption: true },
  contract: { title: 'Proposal and contract', formats: ['pdf'], usesPaymentOption: true },
  contract_only: { title: 'Contract', formats: ['pdf'], usesPaymentOption: true },
  installation_instructions: { title: 'Installation pack', formats: ['pdf'], usesPaymentOption: false },
  financials_report: { title: 'Financials report', formats: ['pdf', 'csv'], usesPaymentOption: true },
  global_bom: { title: 'Bill of materials', formats: ['pdf', 'csv'], usesPaymentOption: true },
  bill_calculations_csv: { title: 'Bill calculations', formats: ['csv'], usesPaymentOption: false },
  pv_site_plan: { title: 'Site plan', formats: ['pdf'], usesPaymentOption: true },
  system_image_only: { title: 'System image', formats: ['pdf'], usesPaymentOption: false },
  system_performance_8760: { title: 'Hourly performance', formats: ['csv'], usesPaymentOption: false },
} as const satisfies Record<string, DocumentTypeFacts>;

export type DocumentType = keyof typeof DOCUMENT_TYPES;
export const DOCUMENT_TYPE_NAMES = Object.keys(DOCUMENT_TYPES) as DocumentType[];

export function isDocumentType(value: string): value is DocumentType {
  return Object.hasOwn(DOCUMENT_TYPES, value);
}

export const DOCUMENT_CONTENT_TYPES: Record<DocumentFormat, string> = { pdf: 'application/pdf', csv: 'text/csv; charset=utf-8' };

/** The tag every saved document carries besides the ones asked for, so the Files tab can find them. */
export const GENERATED_DOCUMENT_TAG_TITLE = 'Generated Document';

/** The languages the documents are written in (their words; figures follow the language's conventions). */
export const DOCUMENT_LANGUAGES = ['en', 'en-AU', 'en-US', 'en-GB'] as const;

/** The query of POST .../generate_document/<type>/ (and the legacy generate_document_pdf/<type>/). */
export const generateDocumentQuerySchema = z.object({
  file_format: z.enum(['pdf', 'csv'], { error: 'Send file_format=pdf or file_format=csv.' }).optional(),
  document_template_id: integerField().optional(),
  system_uuid: z.string().min(1).max(64).optional(),
  payment_option_id: integerField().optional(),
  language: z.enum(DOCUMENT_LANGUAGES, { error: `Send language as one of ${DOCUMENT_LANGUAGES.join(', ')}.` }).optional(),
  /** Comma-separated tag titles (or ids) the saved file carries. */
  file_tags: z.string().max(2000).optional(),
  action: z.enum(['save'], { error: 'The only action is save (keep the document as a private file of the project); leave it out to get the bytes.' }).optional(),
  temporary: booleanQueryParam(),
});

export type GenerateDocumentQuery = z.infer<typeof generateDocumentQuerySchema>;

/** What changed since a saved document was made, by the part of its `input_data` that differs. */
export const DOCUMENT_INPUT_CHANGES = ['design', 'prices', 'project', 'template'] as const;
export type DocumentInputChange = (typeof DOCUMENT_INPUT_CHANGES)[number];

/** In the Files tab's words: "Made from an older design and older prices". */
const CHANGE_WORDS: Record<DocumentInputChange, string> = {
  design: 'an older design',
  prices: 'older prices',
  project: 'older project details',
  template: 'an older template',
};

export function staleDocumentSentence(changed: readonly DocumentInputChange[]): string {
  const words = DOCUMENT_INPUT_CHANGES.filter((change) => changed.includes(change)).map((change) => CHANGE_WORDS[change]);
  if (words.length === 0) return 'Made from older inputs';
  const listed = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
  return `Made from ${listed}`;
}

/**
 * GET .../projects/<id>/generated_documents/ (a SolarDesk extension): each saved
 * document of the project the caller sees, and whether it is still what the same
 * choices would make now (its input_data_hash against the current inputs' hash).
 */
export const generatedDocumentStateSchema = z.object({
  /** The private file's id. */
  file: z.number().int(),
  document_type: z.enum(Object.keys(DOCUMENT_TYPES) as [DocumentType, ...DocumentType[]]),
  /** The query that made it: Regenerate sends it again with action=save. */
  query: z.object({
    file_format: z.enum(['pdf', 'csv']),
    system_uuid: z.string(),
    payment_option_id: z.number().int().nullable(),
    document_template_id: z.number().int().nullable(),
    language: z.string(),
  }),
  is_current: z.boolean(),
  /** What differs from the inputs it was made from (empty when current). */
  changed: z.array(z.enum(DOCUMENT_INPUT_CHANGES)),
  /** Why it cannot be made again with the same choices (its system or template is gone), in a sentence; null when it can. */
  problem: z.string().nullable(),
});
export type GeneratedDocumentState = z.infer<typeof generatedDocumentStateSchema>;

/** Countries whose offices print on US Letter; every other prints on A4 (ISO 216). */
const LETTER_COUNTRIES: ReadonlySet<string> = new Set(['US', 'CA', 'MX', 'PH', 'CL', 'CO', 'VE', 'GT', 'CR', 'DO', 'SV', 'NI', 'PA', 'PR']);

export type PaperSize = 'A4' | 'LETTER';

/** The paper the org's documents are laid out for, following its country (A4 when unknown). */
export function paperSizeOf(countryIso2: string | null): PaperSize {
  return countryIso2 && LETTER_COUNTRIES.has(countryIso2.toUpperCase()) ? 'LETTER' : 'A4';
}
