// How a webhook field path reads to a person (issue 28): label first, the path beside it.
import { labelOf } from '../format.ts';

/**
 * A path in people's words, label first: "project.systems.price_including_tax" reads
 * "System price including tax", "contact.*" "Every contact field". The path itself is
 * shown beside it in small text, as integrations name it.
 */
export function pathLabel(path: string): string {
  const [model = '', ...rest] = path.split('.');
  if (rest.length === 0) return labelOf(model);
  if (rest.at(-1) === '*') return rest.length === 1 ? `Every ${model} field` : `Every field of ${rest.slice(0, -1).join(' ').replace(/_/g, ' ')}`;
  // Parents are lists ("systems"): one of them is meant; the field's own words follow.
  const parents = rest.slice(0, -1).map((segment) => segment.replace(/_data$/, '').replace(/_/g, ' ').replace(/s$/, ''));
  const words = [...parents, labelOf(rest.at(-1)!).toLowerCase()].join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
