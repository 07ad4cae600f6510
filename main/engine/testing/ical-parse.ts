// Reads what the engine serves as iCalendar with ical.js, a real iCalendar library
// (a devDependency: only tests parse calendars), so a test checks what a phone's
// calendar would see rather than the text we wrote.
import ICAL from 'ical.js';

/** The VEVENTs of an iCalendar text, as ical.js reads them. */
export function parseCalendarEvents(text: string): ICAL.Event[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return calendar.getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
}
