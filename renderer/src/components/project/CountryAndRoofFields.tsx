import { useId } from 'react';
import { apiPaths, parseRoofTypeReference } from '../../../../shared/api-paths.ts';
import { ROOF_TYPES } from '../../../../shared/roof-types.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { checkProjectValue } from '../../project/field-validation.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/** The two location fields that are not plain values: a country code and a roof type reference. */
export function CountryAndRoofFields({ project }: { project: ProjectDetailJson }) {
  const countryId = useId();
  const roofId = useId();
  const country = useProjectStore((state) => state.drafts.country_iso2) as string | undefined;
  const countryError = useProjectStore((state) => state.fieldErrors.country_iso2);
  const editDraft = useProjectStore((state) => state.editDraft);
  const flush = useProjectStore((state) => state.flush);
  const save = useProjectStore((state) => state.save);
  const roofTypeId = parseRoofTypeReference(project.roof_type);

  return (
    <>
      <div className={`field${countryError ? ' has-error' : ''}`}>
        <label htmlFor={countryId}>Country (2-letter code)</label>
        <input
          id={countryId}
          maxLength={2}
          value={country ?? project.country_iso2 ?? ''}
          aria-invalid={countryError ? true : undefined}
          onChange={(event) => {
            const check = checkProjectValue('country_iso2', event.target.value);
            editDraft('country_iso2', event.target.value, check.ok ? { ok: true, body: { country_iso2: check.value } } : check, 'Country');
          }}
          onBlur={() => void flush()}
        />
        {countryError && (
          <span className="field-error" role="alert">
            {countryError}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={roofId}>Roof type</label>
        <select
          id={roofId}
          value={roofTypeId ?? ''}
          onChange={(event) => void save({ roof_type: event.target.value ? apiPaths.roofType(Number(event.target.value)) : null })}
        >
          <RoofTypeOptions noneLabel="Not set" />
        </select>
      </div>
    </>
  );
}

/** A roof type picker's choices by name (shared/roof-types.ts), the value being the roof type id, and one for none. */
export function RoofTypeOptions({ noneLabel }: { noneLabel: string }) {
  return (
    <>
      <option value="">{noneLabel}</option>
      {ROOF_TYPES.map((roofType) => (
        <option key={roofType.id} value={roofType.id}>
          {roofType.title}
        </option>
      ))}
    </>
  );
}
