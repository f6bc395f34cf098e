/**
 * Free texts of synthetic profiles: the "about" of a person and the description of a role. A few are
 * awkward on purpose (a leading "=", quotes, a line break, an emoji) so that exports meet them.
 */
import type { SeededRandom } from './seeded-random.js';

const INTERESTS = [
  'Passionate about building teams that ship.',
  'Focused on customers, data and "getting it right the first time".',
  'Mentor, runner, lifelong learner.',
  'Turning complex problems into simple products 🚀',
  'Opinions are my own.',
  'Always happy to talk shop; reach out!',
];

const ACHIEVEMENTS = [
  'Grew the team from 3 to 25 people.',
  'Owned the roadmap for two product lines.',
  'Cut costs by 18% while improving service levels.',
  'Led the migration to a new platform, on time and on budget.',
  'Closed the largest deal in company history.',
  'Built the function from scratch.',
];

/** The share of abouts that start with "=" (a formula to a spreadsheet). */
const FORMULA_ABOUT_SHARE = 0.01;

/** A person's about text, or null (about a third of profiles have none). */
export function writeAbout(random: SeededRandom, title: string, companyName: string): string | null {
  const u = random.next();
  if (u < 0.3) return null;
  const interest = random.pick(INTERESTS);
  if (u < 0.3 + FORMULA_ABOUT_SHARE) return `=${title} + builder. ${interest}`;
  // "Acme Ltd." already ends the sentence.
  const role = companyName.endsWith('.') ? `${title} at ${companyName}` : `${title} at ${companyName}.`;
  return u < 0.4 ? `${role}\n${interest}` : `${role} ${interest}`;
}

/** A role's description, or null for about half of the roles. */
export function describeRole(random: SeededRandom, title: string): string | null {
  return random.chance(0.5) ? null : `${title}. ${random.pick(ACHIEVEMENTS)}`;
}
