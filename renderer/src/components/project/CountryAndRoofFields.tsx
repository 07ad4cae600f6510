import { useId, useState } from 'react';
import { apiPaths, parseRoofTypeReference } from '../../../../shared/api-paths.ts';
import { ROOF_TYPES } from '../../../../shared/roof-types.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { checkProjectValue } from '../../project/field-validation.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/** The two location fields that are not plain values: a country code and a roof type reference. */
export function CountryAndRoofFields({ project }: { project: ProjectDetailJson }) {
  const countryId = useId();
  const roofId = useId();
  const [country, setCountry] = useState<string | null>(null);
  const countryCheck = country === null ? null : checkProjectValue('country_iso2', country);
  const save = useProjectStore((state) => state.save);
  const roofTypeId = parseRoofTypeReference(project.roof_type);

  return (
    <>
      <div className={`field${countryCheck && !countryCheck.ok ? ' has-error' : ''}`}>
        <label htmlFor={countryId}>Country (2-letter code)</label>
        <input
          id={countryId}
          maxLength={2}
          value={country ?? project.country_iso2 ?? ''}
          onChange={(event) => setCountry(event.target.value)}
          onBlur={async () => {
            if (countryCheck?.ok && countryCheck.value !== project.country_iso2 && (await save({ country_iso2: countryCheck.value }))) setCountry(null);
          }}
        />
        {countryCheck && !countryCheck.ok && <span className="field-error">{countryCheck.message}</span>}
      </div>
      <div className="field">
        <label htmlFor={roofId}>Roof type</label>
        <select
          id={roofId}
          value={roofTypeId ?? ''}
          onChange={(event) => void save({ roof_type: event.target.value ? apiPaths.roofType(Number(event.target.value)) : null })}
        >
          <option value="">Not set</option>
          {ROOF_TYPES.map((roofType) => (
            <option key={roofType.id} value={roofType.id}>
              {roofType.title}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}
