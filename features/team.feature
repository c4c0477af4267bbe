Feature: Managing the team
  The team table repeats the same buttons on every row; ordinals and
  "in the row of" pick the right one.

  Background:
    Given I open 'acme/team.html' in the browser

  Scenario: Remove a member, after changing one's mind once
    Then I should see 5 'Remove buttons'
    And I should see at least 2 'Editor'
    When I click the second 'Remove' button
    Then I should see 'Remove Bob Stone?'
    When I click 'Keep'
    And I click the 'Remove' button in the row of 'Carol White'
    And I click 'Yes, remove'
    Then I should see 'Carol White was removed'
    And I should see 4 'Remove buttons'
    And I should see '4 members'

  Scenario: Edit, inspect and promote members
    When I click the last 'Edit' button
    Then I should see 'Editing Erin Black'
    When I double-click 'Dave Brown'
    Then I should see 'Dave Brown, Editor, joined in 2021'
    When I right-click 'Erin Black'
    And I click 'Make admin'
    Then I should see 'Erin Black is now an admin'

  Scenario: Hover for help, and drag a member on call
    When I hover over 'What do roles mean?'
    Then I should see 'Admins can change billing and invite people'
    When I drag 'Alice Martin' to 'On call this week'
    Then I should see 'On call this week: Alice Martin'
