import { NavigationView } from './navigation-view.entity';

/** Views the web app has built in; they can be pinned or hidden but not renamed. */
export const BUILT_IN_VIEW_FRAGMENTS = [
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
];

export function isBuiltInView(fragment: string): boolean {
  return BUILT_IN_VIEW_FRAGMENTS.includes(fragment);
}

/** The API dict of a view (get_navigation_view_dict). */
export function navigationViewDict(view: NavigationView): {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
} {
  return { fragment: view.fragment, is_pinned: view.isPinned, name: view.name };
}
