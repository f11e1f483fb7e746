import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A user's configuration of a left-sidebar navigation view (Zulip's NavigationView): either
 * settings for a built-in view (no name) or a custom view (with a name).
 */
@Entity({ name: 'navigation_view' })
@Index('navigation_view_user_fragment_key', ['userId', 'fragment'], { unique: true })
@Index('navigation_view_user_name_key', ['userId', 'name'], { unique: true, where: 'name IS NOT NULL' })
export class NavigationView {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text' })
  fragment: string;

  @Column({ name: 'is_pinned', type: 'boolean', default: false })
  isPinned: boolean;

  @Column({ type: 'text', nullable: true })
  name: string | null;
}
