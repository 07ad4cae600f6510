import './DetailsTab.css';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { FIELD_SECTIONS } from '../../project/field-sections.ts';
import { CountryAndRoofFields } from './CountryAndRoofFields.tsx';
import { FieldInput } from './FieldInput.tsx';
import { RolesEditor } from './RolesEditor.tsx';
import { UsageEditor } from './UsageEditor.tsx';

export function DetailsTab({ project }: { project: ProjectDetailJson }) {
  return (
    <div className="details-tab">
      {FIELD_SECTIONS.map((section) => (
        <details key={section.title} className="field-section" open={!section.isFolded}>
          <summary>{section.title}</summary>
          <div className="field-grid">
            {section.fields.map((field) => (
              <FieldInput key={field} field={field} project={project} />
            ))}
            {section.title === 'Location' && <CountryAndRoofFields key={project.id} project={project} />}
          </div>
        </details>
      ))}
      <details className="field-section" open>
        <summary>Assigned roles</summary>
        <RolesEditor project={project} />
      </details>
      <details className="field-section" open>
        <summary>Energy usage</summary>
        <UsageEditor key={project.id} project={project} />
      </details>
    </div>
  );
}
