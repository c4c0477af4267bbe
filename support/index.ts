// Glance for Cucumber: the World, the hooks and every step.
import './hooks';
import '../steps';
export { GlanceWorld } from './world';
